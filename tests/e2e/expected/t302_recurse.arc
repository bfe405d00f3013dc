# arc of trace trace (ptrace, complete)
# command: arc_recurse
# total: 33 steps of the trace (percentages are of these)
# 2 functions; callers (<) above each function, callees (>) below; Base = self, Cum = inclusive
#
#     calls        base   base%         cum    cum%  function
#
          0           5                  33             < (root)
          0           5  15.15%          33 100.00%  _start [arc_recurse]
          1           5                  28             > rec
#
          1           5                  28             < _start
          5          23                   0             < rec
          6          28  84.85%          28  84.85%  rec [arc_recurse]
          5          23                   0             > rec
