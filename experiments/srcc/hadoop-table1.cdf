# SRCC Table I "Hadoop" flow sizes (Hu et al., IEEE TII 2024): 60% of flows
# 0-100 KB, 38% 100 KB-1 MB, 2% above 1 MB, average 1.04 MB.
# Built from the public Facebook Hadoop table (HPCC simulator
# traffic_gen/FbHdp_distribution.txt, ccsim's built-in `hadoop`):
# * 0-100 KB: FbHdp's points below 100 KB, their probabilities scaled so that
#   100 KB is at 0.60 (FbHdp: 0.885 there, linearly interpolated);
# * 100 KB-1 MB: FbHdp's points in between (120 KB, 300 KB), rescaled from
#   FbHdp's 0.885..0.975 onto 0.60..0.98;
# * above 1 MB: FbHdp ends at 10 MB, and no shape of its 2.5% above 1 MB
#   gives Table I's mean; the 2% above 1 MB is spread uniformly (one linear
#   segment) from 1 MB to the size that makes the mean 1.04 MB (1.04e6 B,
#   with linear interpolation, ccsim's default sampling): 90363393 B.
# Exact mean (interpolated): 1040000 B.
# size_bytes cum_prob
0 0
100 0.00678
200 0.013559
300 0.033898
350 0.101695
400 0.135593
500 0.20339
600 0.271186
700 0.338983
1000 0.40678
2000 0.454237
7000 0.474576
30000 0.488136
50000 0.555932
80000 0.589831
100000 0.6
120000 0.663333
300000 0.874444
1000000 0.98
90363393 1
