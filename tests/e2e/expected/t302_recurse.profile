# profile of trace trace (ptrace, complete)
# command: arc_recurse
# total: 33 steps of the trace (percentages are of these)
# 2 functions
#     calls        base   base%         cum    cum%  function [module]
          6          28  84.85%          28  84.85%  rec [arc_recurse]
# 1 more functions with 5 steps of Base (15.15%) not shown
