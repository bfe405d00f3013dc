# profile of trace trace (ptrace, complete)
# command: arc_basic
# total: 23 steps of the trace (percentages are of these)
# 4 functions
#     calls        base   base%         cum    cum%  function [module]
          3           9  39.13%           9  39.13%  g [arc_basic]
          2           6  26.09%          12  52.17%  f [arc_basic]
          0           4  17.39%          23 100.00%  _start [arc_basic]
          1           4  17.39%          19  82.61%  main [arc_basic]
