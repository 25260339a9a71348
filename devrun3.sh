set -u
# A. quantize_v2 default (4 blocks per SM)
FP8Q_V2_BUILD=/tmp/b4 OUT=$OUT/q4 bash bench/v2_kernels_h200.sh > $OUT/q4.txt 2>&1; echo "q4 rc=$?"
grep -E "v2 check|^FAIL" $OUT/q4.txt | head -5
sed -n '/^quantize_v2 bf16, M = 16384/,/^$/p' $OUT/q4.txt | grep -E "row_major|swizzle" | cut -c1-80
# B. 5 blocks per SM
FP8Q_NVCC_FLAGS=-DFP8Q_V2_QUANT_WORDS_MIN_BLOCKS=5 FP8Q_V2_BUILD=/tmp/b5 OUT=$OUT/q5 bash bench/v2_kernels_h200.sh > $OUT/q5.txt 2>&1; echo "q5 rc=$?"
grep -E "v2 check" $OUT/q5.txt
sed -n '/^quantize_v2 bf16, M = 16384/,/^$/p' $OUT/q5.txt | grep -E "row_major" | cut -c1-80
ncu --kernel-name regex:quantize_v2_words_bf16 --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats /tmp/b4/gpu_v2_check /tmp/b4 --bench > $OUT/ncu.txt 2>&1
grep -E "DRAM Throughput|Compute \(SM\)|Registers|Cycles Per Issued|Executed Instructions  |Achieved Occupancy" $OUT/ncu.txt | cut -c1-100
# C. decode GEMM v1 vs v2, then the knob sweep
mkdir -p $OUT/dg
OUT=$OUT/dg/full PYARGS="--compact full" timeout 240 bash bench/decode_gemm_h200.sh 2>$OUT/dg/full-detail.txt | tail -40; echo "dg rc=$?"
OUT=$OUT/dg/sweep timeout 200 bash bench/decode_gemm_sweep_h200.sh > $OUT/dg/sweep.txt 2>&1; echo "sweep rc=$?"; tail -60 $OUT/dg/sweep.txt | cut -c1-110
