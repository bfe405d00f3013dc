# profile of trace trace
# command: arc_recurse
# total: 33 steps, 2 functions
#     calls        base   base%         cum    cum%  function [module]
          6          28  84.85%          28  84.85%  rec [arc_recurse]
# 1 more functions with 5 steps of Base not shown
