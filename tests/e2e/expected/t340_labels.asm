# annotate of trace labels (ptrace, complete)
# command: labels
# total: 23 steps of the trace (percentages are of these)
#
# function beta [labels] at 0x40101b, 9 bytes
# 14 steps (60.87% of the total), 1 call; percentages are of the function's steps
# source: ROOT/tests/progs/labels.S
# hottest instructions: 40101d (4, 28.57%), 40101f (4, 28.57%), 401021 (4, 28.57%), 40101b (1, 7.14%), 401023 (1, 7.14%)
# count percent    address      instruction
      1   7.14%    40101b:      xor eax, eax
      4  28.57% *  40101d:  /-> add eax, ecx
      4  28.57% *  40101f:  |   dec ecx
      4  28.57% *  401021:  \-- jne 0x40101d <beta+0x2>  # taken 3 of 4
      1   7.14%    401023:      ret
#
# 2 more functions with steps not shown: --top N shows the N hottest, --all every one
