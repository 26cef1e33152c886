#!/usr/bin/env bash
# asyncsim H200 microbenchmarks (CUDA C++, sm_90a), sources in validation/hw/micro/.
#   bash validation/hw/micro.sh build                 # nvcc all in parallel into $BUILD
#   bash validation/hw/micro.sh run OUTDIR [--smoke]  # run each, write OUTDIR/micro_<name>.csv
#                                                     # and its SASS, OUTDIR/sass/<name>.sass
# A benchmark that fails to build or run is reported and skipped; the others go on.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-/tmp/asim_micro_build}
NAMES=${MICRO_NAMES:-"mem_bw tma_latency tma_size tma_issue tma_bw mbarrier wgmma mma_sync mufu"}
NVFLAGS="-gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -Xptxas -v -lineinfo"

method() {
  case "$1" in
    mem_bw) echo "ld.global.cg int4 streaming reads (all SMs x 8 CTAs x 256 thr) of a 4 GiB buffer (dram_read), ld/st.cs copy 2 GiB->2 GiB counting read+write (dram_copy_rw), and L2-resident reads of 2..96 MiB repeated inside one launch (l2_read, 8 GiB moved); CUDA events, median of 7 launches after a warm-up; GB/s = 1e9 B/s; sm_mhz_in_kernel = clock64/globaltimer of block 0; MEMBW_NCU=1 runs each point once after its warm-up under ncu for the L2 counters" ;;
    tma_latency) echo "1 CTA 1 thread: clock64 around mbarrier.arrive.expect_tx + cp.async.bulk.tensor.2d + try_wait spin; 2048 distinct tiles in random order from a W-byte working set of an [W/8KB x 4096] fp16 tensor (boxes 64x64 = 8 KB and 64x1 = 128 B), working set first touched by an all-SM read kernel; first 8 samples dropped; cycles = SM clock" ;;
    tma_size) echo "1 CTA 1 thread: clock64 around one cp.async.bulk (1-D, global->shared, mbarrier complete_tx) of S bytes + try_wait spin; src=l2 same source every sample, src=dram fresh 1 MiB-spaced sources after a 512 MiB L2 flush; 512 samples, first 4 dropped" ;;
    tma_stride) echo "1 CTA 1 thread: clock64 around mbarrier.arrive.expect_tx + 1 or 2 cp.async.bulk.tensor.2d boxes of 64 fp16 columns x R rows with row stride S bytes (second box from a tensor 1 GiB away) + try_wait spin; every sample reads lines not read before, after a 512 MiB L2 flush per configuration (all from DRAM); 64 samples, first 2 dropped; cycles = SM clock" ;;
    tma_bulk_box) echo "1 CTA 1 thread: clock64 around mbarrier.arrive.expect_tx + one cp.async.bulk of S bytes (path bulk) or one cp.async.bulk.tensor.2d box of S/128 contiguous 128-B rows (path box) + try_wait spin; sample i at base + i * spacing (1 MiB + 4 KiB or 16 MiB), lines never read before, after a 512 MiB L2 flush per configuration; 64 samples, first 2 dropped; cycles = SM clock" ;;
    tma_issue) echo "1 CTA 1 thread issues n back-to-back copies (bulk 1 KB/4 KB, tensor2d 64x32 fp16 4 KB) to distinct smem slots on one mbarrier: clock64 before first issue, after last issue (issue_cycles) and at completion (complete_cycles); median of 8 reps (first dropped); src=l2 same sources every rep, src=dram fresh sources after an L2 flush" ;;
    tma_bw) echo "all SMs, ctas_per_sm CTAs per SM with 1 issuing thread each, a ring of smem slots per CTA (one mbarrier per slot, reissue when the slot's copy completed, no consumer); bulk 4/8/16 KB, tensor1d u64 box 256 (2 KB), tensor2d fp16 64x64, tensor3d fp16 64x8x8 (8 KB); wait = try_wait or test_wait spin; dram: 4 GiB read once, l2: 32 MiB read 256 times; CUDA events, median of 5 after a warm-up" ;;
    mbarrier) echo "1 CTA: dependent chains of mbarrier test_wait/try_wait on completed and never-completing phases, back-to-back arrive, one-way wake latency (arrive clock -> spinning waiter sees phase flip, same SM clock), ping-pong hand-off between two warps; cycles = SM clock64" ;;
    wgmma) echo "1 CTA on 1 SM, A and B in smem (no swizzle): lat = fence+1 wgmma+commit+wait_group 0 per iteration (1 warpgroup); chain = 8 wgmma on one accumulator per commit/wait, 1..4 warpgroups concurrently; m64nNk16 f16->f32 and m64nNk32 e4m3->f32; clock64 of each warpgroup's thread 0, max over warpgroups, median of 5 launches" ;;
    mma_sync) echo "1 CTA on 1 SM: mma.sync m16n8k16 f16->f32; latency = 1 warp 1 dependent chain; issue = 1 warp 8 independent accumulators; sm_tput = W warps x 8 chains; clock64 between __syncthreads, median of 5" ;;
    tma_align) echo "1 CTA 1 thread, tensor resident in L2 (read by all SMs first): clock64 around mbarrier.arrive.expect_tx + 1 or 8 cp.async.bulk.tensor.2d boxes of 64 fp16 columns x 128 rows (16 KB each) with row stride S bytes (128-B aligned or not) + try_wait spin; 64 samples over different row blocks, first 2 dropped; cycles = SM clock" ;;
    tma_align_burst) echo "G CTAs (1..132, one per SM: 128 KB dynamic smem), thread 0 of each: its own 128-row block of an L2-resident fp16 tensor with row stride S bytes (read by all SMs first), 8 cp.async.bulk.tensor.2d boxes of 64 columns x 128 rows (16 KB each) on one mbarrier per iteration, 18 iterations back to back, clock64 per iteration; first 2 dropped, per-CTA median, then median/max/p90 over CTAs; sm_mhz = clock64 / globaltimer of CTA 0" ;;
    l2_partition) echo "for every target SM s: 512 MiB L2 flush, then a helper CTA on SM 0 reads 192 random lines of a 64 MiB region once (ld.global.cg), then thread 0 on SM s reads each line twice (pass 0 then pass 1), each a dependent ld.global.cg timed with clock64; one CTA per SM (200 KB dynamic smem), the CTA on the wanted SM (%smid) works, the others exit" ;;
    sm_map) echo "where CTAs land: table=dispatch, one wave of grid = SMs x ctas_per_sm CTAs (dynamic smem sized so ctas_per_sm fit), each CTA records %smid and %globaltimer at entry (t_ns from the first) and stays 200 us; table=cluster, 4 launches each of clusters of 2/4/8/16 CTAs (cudaLaunchKernelEx, non-portable sizes allowed), each CTA records %smid; group = cluster number over all launches (a cluster's CTAs share a GPC)" ;;
    cta_fill) echo "where the CTAs of a many-per-SM grid land: table=dispatch, one launch of SMs x k CTAs of 256 threads (k = 3, 4, 8, and 8 again; threads cap an SM at 8), no smem, each CTA records %smid and globaltimer at entry (ns from the first) and stays 100 us; table=l2_read, mem_bw.cu's read_kernel (SMs x 8 CTAs x 256 threads, ld.global.cg int4 grid-stride loop) on an L2-resident buffer of G x 4 KB (G = 1, 8, 32, 64, 128, 192, 256, 512, 768, 1024: only the first G CTAs have work), 2048 passes, thread 0 of each CTA records %smid and globaltimer at entry and after a closing __syncthreads; 3 launches after a warm-up; kernel_us = CUDA events" ;;
    lsu_placed) echo "lsu.cu's chip stream_kernel (every SM x C CTAs x 256 threads, U int4 ld.global.cg / st.global in flight per thread; threads cap an SM at 8 CTAs, no smem) with thread 0 of each CTA recording %smid and globaltimer after the opening __syncthreads and after the closing one; src=l2: 32 MiB read by all SMs first, then read or written 64 times in the launch; src=dram: 2 GiB written once after a 512 MiB flush; points (op,src,C,U) = ld/st l2 2 1, ld/st l2 2 8, st dram 2 1, ld/st l2 8 1; 3 launches after a warm-up; kernel_us = CUDA events" ;;
    cta_start) echo "G CTAs (1..132, one per SM: 120 KB dynamic smem), thread 0 of each: clock64 around mbarrier.arrive.expect_tx + one cp.async.bulk of S bytes (4 or 32 KB) + try_wait spin at kernel start; place contig (CTA c at c*S) or page2m (c*2 MiB); state l2 (same bytes as the previous launch), dram (after a 512 MiB L2 flush; addresses read a few launches before), fresh (dram, in a 1 GiB window of an 8 GiB buffer that the last 6 launches did not touch); 5 launches after a dropped one, median/p90/max over all CTAs; median_dispatch_ns = CTA entry (globaltimer) after the first CTA's" ;;
    lsu) echo "load/store-unit path without TMA: latency = 1 thread, dependent ld.global.cg chain over a random cyclic permutation of a W-byte buffer's lines, clock64 around each load (src=l2 after an all-SM read, dram after a 512 MiB flush; first 8 dropped; p10/median/p90); sm = 1 CTA of T threads, U independent int4 ld.global.cg (or st.global) in flight per thread (next addresses depend on the loaded data), clock64 of thread 0 between __syncthreads, l2 = 4 MiB resident x 4 passes, dram = 64 MiB after a flush, median of 3; chip = every SM x C CTAs x 256 threads, U in flight per thread, l2 = 32 MiB resident x 64 passes, dram = 4 GiB read (2 GiB written) once after a flush, CUDA events, median of 5 after a warm-up; sm_mhz = clock64 / globaltimer of block 0" ;;
    lsu_vec) echo "warp_latency = 1 CTA of W warps (1 or 4), each a dependent chain of full-warp int4 ld.global.cg (512 contiguous bytes, 4 lines, at a pseudo-random 512-B block of an L2-resident 4 or 32 MiB buffer read by all SMs first; next block from the loaded data via shfl), clock64 of lane 0 around each load, first 8 of 1024 dropped; vector_add = c[i] = a[i] + b[i] over N fp32, float4 per thread, grid-stride loop, C CTAs x 256 threads, CUDA events, median of 9 after a warm-up, 12 B per element" ;;
    lsu_chain) echo "W warps (1 or 4) of one CTA, each a dependent ld.global.cg chain over a random cycle of 512-B blocks (every word of a block holds the next block index, no shuffle or arithmetic on the chain); lane l reads width (4 or 16) bytes at block + (l % lanes) * width, lanes 1 / 8 / 32; clock64 of lane 0 around each load, first 8 of 1024 dropped; src=l2: 4 MiB read by all SMs first, src=dram: 1 GiB after a 512 MiB flush" ;;
    tma_repeat) echo "for SMs 0, 2, 1, 3 and mode lsu / tma: 512 MiB L2 flush, then one thread on that SM (one CTA per SM, 200 KB dynamic smem) reads each of 192 random lines of a 64 MiB zeroed region 4 times (pass 0 from DRAM, passes 1-3 from L2), one read at a time: lsu = dependent ld.global.cg int4 with clock64 around it, tma = mbarrier.arrive.expect_tx + cp.async.bulk of the 128-B line + try_wait spin with clock64 around it; cycles = SM clock" ;;
    tma_loop) echo "1 CTA 1 thread, slots mbarriers, one copy per slot from a 32 MiB L2-resident source: issue = expect_tx + copy issue per slot; wait_try / wait_test = try_wait / test_wait on the slot's completed phase + expect_tx + issue; wait_only = try_wait on completed phases alone; clock64 around the loop / slots, 16 reps first dropped; steady = tma_bw's ring loop for 8 rounds, cycles per iteration over rounds 2..8, grid 1 (one SM) or all SMs (median over CTAs); bulk 1/4/8 KB, tensor1d u64 box 256 (2 KB), tensor2d fp16 64x32 / 64x64" ;;
    tma_touch) echo "tma_latency's draws logged per sample on SM 0 (one CTA per SM, 200 KB dynamic smem, the CTA on SM 0 times): 512 MiB L2 flush, warm-up of the working set by all SMs (read_all_kernel, every CTA's %smid logged as map rows; 4 KB chunk k is read by CTA k mod (SMs x 8)) or by SM 0 alone (1024 threads), then 2048 TMA 2-D loads of tiles drawn as tma_latency.cu draws them (mt19937_64 seeded 12345 per configuration); boxes 64x64 fp16 at 1/8/16/24 MiB and 64x1 at 1/16 MiB; every sample kept; cycles = SM clock" ;;
    l2_rotate) echo "all SMs x 8 CTAs x 256 threads, grid-stride int4 ld.global.cg reads of a 16-64 MiB buffer repeated inside one launch (4 GiB moved): fixed = mem_bw's l2_read (every 4 KB chunk read by the same CTA each pass), rotate = CTA b reads CTA (b + 37 p) mod G's chunks in pass p (each line read from SMs of both partitions over the passes); CUDA events, median of 5 after a warm-up launch" ;;
    dram_pair) echo "1 CTA 1 thread, after a 512 MiB L2 flush per point: one TMA 2-D box of R rows of 128 B (64 fp16) whose rows are D bytes apart, clock64 around expect_tx + copy + try_wait spin; R = 2, 4, 8, D = 128 B .. 256 MiB by powers of two; 64 samples, sample i at byte i * 4 MiB + (i * 7 mod 32) * 128 of a 2 GiB buffer (lines never read before), first 2 dropped; cycles = SM clock" ;;
    dram_spread) echo "1 warp, after a 512 MiB L2 flush per point: lane j < R loads one 4-byte word (ld.global.cg) of line j of the sample's set in one warp instruction, clock64 before it and after a warp reduction of the loaded words (cold, every line from DRAM), then the same loads again (hot, L2); sets: stride = R lines D bytes apart (sample i at byte i * 4 MiB + (i * 7 mod 64) * 128, lines never read before), random = R distinct lines uniform over a 2 GiB buffer, random1m / random8k / random32k / random128k = R distinct lines of one 1 MiB / 8 / 32 / 128 KB region (region i * 4 MiB); R = 1..32, D = 128 B..16 MiB; 64 samples, first 2 dropped; cycles = SM clock" ;;
    dram_repeat) echo "dram_spread's gather (one warp, lane j < R loads one word of line j in one ld.global.cg, clock64 around it and a warp reduction) on the same 64 sets (single: 128) in 6 runs, a 512 MiB L2 flush before every run: random R = 16, 32 lines of a 2 GiB buffer, stride 16 x 8 KB and 32 x 128 B (sample i at i * 4 MiB + (i * 7 mod 64) * 128), single = 1 random line; every sample printed (cold cycles = SM clock)" ;;
    dram_width) echo "after a 512 MiB L2 flush per point, 32 rows D bytes apart (sample i's rows at i * 4 MiB + (i * 7 mod 64) * 128 + j * D, lines never read before) read by one TMA 2-D box of 32 rows of W bytes (1 thread: clock64 around expect_tx + copy + try_wait spin) or by one warp's gather (lane j row j: W = 32 one ld.global.cg.u32, W = 128 four at +0/+32/+64/+96; clock64 around the loads and a warp reduction); W = 32, 128; D = 128 B .. 64 KB; 64 samples, first 2 dropped; cycles = SM clock" ;;
    dram_sector) echo "1 thread, after a 512 MiB L2 flush per point, 64 samples on fresh random lines of a 2 GiB buffer: clock64, ld.global.cg of the line's sector 0, a clock64 spin of gap cycles, ld.global.cg of the second (sector 1 or 3 of the same line, sector 0 again, sector 0 of another random line; none = the first alone), second_cycles = the second value's use from the first clock, both = then the first's; gap = 0..800 cycles; first 2 dropped; cycles = SM clock" ;;
    tma_tail) echo "SM 0 (one CTA per SM, 200 KB dynamic smem, the CTA on SM 0 works) warms a 1 MiB working set itself (1024 threads, ld.global.cg), then times 2048 TMA 2-D loads of tma_latency's draws (boxes 64x1 and 64x64 fp16, mt19937_64 seeded 12345) spinning on try_wait (wait=try) or test_wait (wait=test); first 8 samples dropped; cycles = SM clock" ;;
    l2_slice_map) echo "which L2 slice serves each line: one thread on SM 0, then on SM 2 (other partition), reads 12 lines passed as kernel parameters, line i 32 << i times by ld.global.cg, per launch; lines 0-2047 and m << j for j = 4..22, m = 1..24 of a 1 GiB buffer; run under ncu with --print-metric-instances values and lts__t_requests_srcunit_tex_op_read.sum (--kernel-name probe), L2MAP_PART=0..7 for an eighth of the sets; the binary prints set,reader_sm,smid,lines per launch; decoded by validation/l2_slice_map.py" ;;
    l2_pairs) echo "groups of SMs (not CTA ids) read the same 16 KB GEMM tiles (64 fp16 columns x 128 rows, pitch 4096 B, 16 MiB L2-resident tensor) in the same order, one issuing thread per CTA with a ring of S slots; GPCs found by union-find over cluster launches (16/8/4/2 CTAs), TPC t = SMs 2t, 2t+1, a GPC's TPCs by ascending id; layouts sm (alone), tpc, tpc_d1..4 (two TPCs d apart in a GPC's list), tpc_xgpc (i-th TPCs of two GPCs), sm_d1 (one SM of each of two adjacent TPCs), tpc3, gpc, chip; SMs a layout leaves out exit; points (C, S) = (1, 8) and (1, 1) for every layout, (2, 3) for sm / tpc / chip, and tpc / gpc with (1, 8) and the members of a group skew = 1, 2, 4, 8 copies apart in its sequence; ~4 GiB delivered per launch; CUDA events, median of 5 after a warm-up launch; L2PAIRS_NCU=1 runs each point once after its warm-up under ncu for the L2 counters; the GPC map on stderr" ;;
    l2_hot) echo "all SMs, C CTAs per SM with 1 issuing thread each, a ring of S smem slots per CTA (one mbarrier per slot, reissue when the slot's copy completed, no consumer); every copy a 2-D box of 64 fp16 columns x 128 rows (16 KB) of an L2-resident W-byte fp16 tensor with row pitch P (4096 B: a K = 2048 GEMM operand tile; 128 B: contiguous; 4112 / 4160 B: rows start 16 / 64 B into a line), copy n of CTA b = tile (k + n * ceil(G / g)) mod T with k = b / g (members consecutive) or b mod ceil(G / g) (spread), so the g CTAs of a group read the same tiles at about the same time (group 132 = all); points (P, C, S, g, W) = (4096, 1, 8, 1..132, 16 MiB), (4096, 2, 3, 1/4/264, 16 MiB), (128, 1, 8, 1/4/132, 16 MiB), (4096, 1, 8, 1/4/132, 32 MiB), spread (4096, 1, 8, 2/4/16, 16 MiB), (4112 and 4160, 1, 8, 1/2/132, 16 MiB); ~4 GiB delivered per launch; CUDA events, median of 5 after a warm-up launch; L2HOT_NCU=1 runs each point once after its warm-up under ncu (--cache-control none) for the L2 counters; L2HOT_SWEEP=1 runs instead (4096, 1, S, g, 16 MiB) for S = 1, 2, 4, 12 and g = 1, 4, 132, and (4096, C, 8 / C, g, 16 MiB) for C = 2, 4 and g = 1, all" ;;
    mufu) echo "1 CTA on 1 SM: ex2.approx.ftz.f32 (and fma.rn.f32 for reference) dependent chain (1 thread) and 8 independent chains x 512/1024 threads; clock64 between __syncthreads, median of 5" ;;
  esac
}

cmd=${1:-}
case "$cmd" in
  build)
    mkdir -p "$BUILD"
    echo "nvcc: $(nvcc --version | tail -2 | tr '\n' ' ')"
    pids=""
    for n in $NAMES; do
      ( nvcc $NVFLAGS -o "$BUILD/$n" "$HERE/micro/$n.cu" -lcuda > "$BUILD/$n.build.log" 2>&1 \
          && echo "built $n" || { echo "BUILD FAILED $n"; tail -30 "$BUILD/$n.build.log"; } ) &
      pids="$pids $!"
    done
    for p in $pids; do wait $p; done
    # registers / spills summary
    grep -H -E "registers|spill" "$BUILD"/*.build.log | sed 's|.*/||' | sort | uniq | head -80
    ;;
  run)
    OUTDIR=${2:?OUTDIR}; SMOKE=${3:-}
    mkdir -p "$OUTDIR"
    for n in $NAMES; do
      if [ ! -x "$BUILD/$n" ]; then echo "SKIP $n: not built"; continue; fi
      echo "=== micro $n $SMOKE"
      tmp="$BUILD/$n.csv.tmp"
      t0=$(date +%s)
      timeout ${MICRO_TIMEOUT:-150} "$BUILD/$n" $SMOKE > "$tmp" 2> "$BUILD/$n.run.err"
      rc=$?
      cat "$tmp"; cat "$BUILD/$n.run.err"
      echo "--- $n rc=$rc in $(( $(date +%s) - t0 )) s"
      # The SASS the numbers came from (a loop's own instructions are part of its time).
      if command -v cuobjdump > /dev/null; then
        mkdir -p "$OUTDIR/sass"
        cuobjdump -sass "$BUILD/$n" > "$OUTDIR/sass/$n.sass" 2> /dev/null || rm -f "$OUTDIR/sass/$n.sass"
      fi
      if [ -s "$tmp" ] && [ "$(wc -l < "$tmp")" -gt 1 ]; then
        { python3 "$HERE/provenance.py" --script validation/hw/micro.sh --method "$(method $n)" \
            | sed "s|^# method: |# method: [$n${rc:+, exit $rc}] |"; cat "$tmp"; } > "$OUTDIR/micro_$n.csv"
        echo "wrote $OUTDIR/micro_$n.csv"
      else
        echo "NO DATA for $n"
      fi
    done
    ;;
  *) echo "usage: $0 build | run OUTDIR [--smoke]"; exit 2 ;;
esac
