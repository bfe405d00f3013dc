# arc of trace trace (ptrace, complete)
# command: arc_tail
# total: 10 steps of the trace (percentages are of these)
# 4 functions; callers (<) above each function, callees (>) below; Base = self, Cum = inclusive
#
#     calls        base   base%         cum    cum%  function
#
          0           4                  10             < (root)
          0           4  40.00%          10 100.00%  _start [arc_tail]
          0           3                   4             > b
          1           2                   2             > a
#
          0           3                   4             < _start
          1           0                   0             < a
          1           3  30.00%           4  40.00%  b [arc_tail]
          1           1                   1             > c
#
          1           2                   2             < _start
          1           2  20.00%           2  20.00%  a [arc_tail]
          1           0                   0             > b
#
          1           1                   1             < b
          1           1  10.00%           1  10.00%  c [arc_tail]
