#!/bin/sh
# A stand-in for the peer programs of ../shared/peers, for bench's tests:
# prints what each would print, in the formats RunPeers parses (the lines
# copy the shape of the real programs' output: GAPBS's bfs, ECL-MST 1.0
# and seedref.cu), or misbehaves on demand.
# Usage: fakepeer.sh MODE [SCALE [ROOTS [FILE]]]
mode=$1 scale=${2:-10} roots=${3:-4} file=$4
case $mode in
gapbs)
	echo "Generate Time:       0.01058"
	echo "Build Time:          0.00057"
	echo "Graph has $((1 << scale)) nodes and 10000 undirected edges for degree: 9"
	i=0
	while [ $i -lt "$roots" ]; do
		echo "Trial Time:          0.0020$i"
		i=$((i + 1))
	done
	echo "Average Time:        0.00200"
	;;
ecl-mst)
	[ -s "$file" ] || { echo "ERROR: could not open file $file" >&2; exit 1; }
	echo "ECL-MST v1.0"
	echo
	echo "input: $file"
	echo "GPU: Fake GPU 80GB with 132 SMs and 2048 mTpSM (0.0 MHz and 0.0 MHz)"
	echo
	echo "Dev+:  0.090000000 s"
	echo "Dev+:  0.004000000 s"
	echo "Dev+:  0.003000000 s"
	echo "Dev+:  0.005000000 s"
	echo "gpu MST weight (arcs in tree, both directions counted): 1234"
	;;
seedref)
	echo "scale $scale: n=$((1 << scale)) undirected edges=$((16 << scale)) arcs=$((32 << scale)) gen 0.01s"
	echo "sssp cache=off restrict=on: mean 2.00 G arcs/s (min 1.50 max 2.50), 9.0 iterations"
	echo "bfs-scan cache=off restrict=on: mean 4.00 G arcs/s, 6.0 levels"
	;;
fail)
	echo "starting"
	echo "segmentation fault (pretend)" >&2
	exit 3
	;;
hang)
	echo "waiting forever"
	sleep 600
	;;
garbage)
	echo "Average Time: soon"
	;;
*)
	echo "fakepeer: unknown mode $mode" >&2
	exit 2
	;;
esac
