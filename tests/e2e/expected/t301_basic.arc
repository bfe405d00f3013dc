# arc of trace trace (ptrace, complete)
# command: arc_basic
# total: 23 steps of the trace (percentages are of these)
# 4 functions; callers (<) above each function, callees (>) below; Base = self, Cum = inclusive
#
#     calls        base   base%         cum    cum%  function
#
          0           4                  23             < (root)
          0           4  17.39%          23 100.00%  _start [arc_basic]
          1           4                  19             > main
#
          1           4                  19             < _start
          1           4  17.39%          19  82.61%  main [arc_basic]
          2           6                  12             > f
          1           3                   3             > g
#
          2           6                  12             < main
          2           6  26.09%          12  52.17%  f [arc_basic]
          2           6                   6             > g
#
          2           6                   6             < f
          1           3                   3             < main
          3           9  39.13%           9  39.13%  g [arc_basic]
