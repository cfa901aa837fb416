"""Measures the graphnb kernel from a real Jupyter client (Debian's
jupyter_client): start-up to the first kernel_info reply, the round trip
of a trivial execute_request ("1+1") and the kernel's idle memory.

    /usr/bin/python3 ops/bench-kernel.py [--kernel graphnb] [--n 100] [--out out/kernel-speed.json]

Goals (issue 3, on the 2-core machine): start ≤ 0.3 s, round trip p50 ≤
1.5 ms and p90 ≤ 3 ms over 100 requests, idle RSS ≤ 80 MB. This is a
benchmark: it reports, it does not fail on a slow run.
"""
import argparse
import json
import os
import statistics
import time

from jupyter_client.manager import KernelManager


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def percentile(xs, p):
    xs = sorted(xs)
    k = (len(xs) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="graphnb")
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--starts", type=int, default=5, help="kernel starts to time")
    ap.add_argument("--out", default="out/kernel-speed.json")
    args = ap.parse_args()

    starts = []
    for i in range(args.starts):
        km = KernelManager(kernel_name=args.kernel)
        t0 = time.perf_counter()
        km.start_kernel()
        kc = km.client()
        kc.start_channels()
        kc.kernel_info()
        kc.get_shell_msg(timeout=30)
        starts.append(time.perf_counter() - t0)
        if i < args.starts - 1:
            kc.stop_channels()
            km.shutdown_kernel(now=True)

    def execute(code):
        msg_id = kc.execute(code)
        while True:
            reply = kc.get_shell_msg(timeout=30)
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply

    for _ in range(args.warmup):
        execute("1+1")
    trips = []
    for _ in range(args.n):
        t0 = time.perf_counter()
        reply = execute("1+1")
        trips.append((time.perf_counter() - t0) * 1e3)
        assert reply["content"]["status"] == "ok", reply["content"]
    time.sleep(1)  # let the kernel settle before reading its memory
    pid = km.provisioner.process.pid if getattr(km, "provisioner", None) else km.kernel.pid
    idle = rss_mb(pid)
    kc.stop_channels()
    km.shutdown_kernel(now=True)

    result = {
        "kernel": args.kernel,
        "start_to_kernel_info_s": {"median": statistics.median(starts), "min": min(starts), "max": max(starts), "runs": len(starts)},
        "execute_1plus1_ms": {"p50": percentile(trips, 0.5), "p90": percentile(trips, 0.9),
                               "p99": percentile(trips, 0.99), "mean": statistics.mean(trips),
                               "n": len(trips), "warmup": args.warmup},
        "idle_rss_mb": idle,
        "cpus": os.cpu_count(),
    }
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    print(f"start → first kernel_info reply: median {result['start_to_kernel_info_s']['median']:.3f} s "
          f"(min {min(starts):.3f}, max {max(starts):.3f}, {len(starts)} starts; goal ≤ 0.3 s)")
    print(f"execute '1+1' round trip over {len(trips)} requests: p50 {result['execute_1plus1_ms']['p50']:.2f} ms, "
          f"p90 {result['execute_1plus1_ms']['p90']:.2f} ms (goals ≤ 1.5 and ≤ 3 ms)")
    print(f"idle RSS: {idle:.1f} MB (goal ≤ 80 MB)")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
