set -u
export FP8Q_V2_BUILD=/tmp/b4
B=/tmp/b4
OUT=$OUT/b4 bash bench/v2_kernels_h200.sh > $OUT/b4.txt 2>&1; echo "rc=$?"
grep -E "^build|v2 check|^FAIL" $OUT/b4.txt | head -20
sed -n '/^quantize_v2 bf16, M = 16384/,/^$/p' $OUT/b4.txt | cut -c1-80
sed -n '/at small M/,/^$/p' $OUT/b4.txt | cut -c1-80
FP8Q_V2_QUANT_WORDS=0 $B/gpu_v2_check $B --bench > $OUT/w0.txt 2>&1
FP8Q_V2_QUANT_WORDS=1 $B/gpu_v2_check $B --bench > $OUT/w1.txt 2>&1
echo "== words=0 large M"; sed -n '/^quantize_v2 bf16, M = 16384/,/^$/p' $OUT/w0.txt | grep -E "row_major|swizzle" | cut -c1-80
echo "== words=1 small M"; sed -n '/at small M/,/^$/p' $OUT/w1.txt | grep -E "row_major|swizzle|empty" | cut -c1-80
ncu --kernel-name regex:quantize_v2_words_bf16 --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis $B/gpu_v2_check $B --bench > $OUT/ncu.txt 2>&1
grep -E "Throughput|Occupancy|Registers|Cycles Per Issued|Issue Slots|Executed Ipc|Eligible|Active Warps|Executed Instructions|Stall|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Duration|Block Limit" $OUT/ncu.txt | cut -c1-120 | head -50
grep -A3 -E "^    (OPT|WRN|INF)" $OUT/ncu.txt | cut -c1-200 | head -40
