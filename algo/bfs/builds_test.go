package bfs

import (
	"regexp"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/internal/card/cardtest"
	"github.com/graphnb/graphnb/internal/fakegpu"
)

// ---- the two builds of the study's kernels ----

// traceWords matches what trace code names: the launch log's calls and
// the GPU timer, and its entry arguments ent and nxt.
var traceWords = regexp.MustCompile(`\b(llog_\w*|globaltimer|ent|nxt)\b`)

// TestStudyBuilds checks the two builds of the study's kernels (bfs.cu's
// and dp.cu's BFS_STUDY_TRACED), what NVRTC compiles for each. The
// untraced build, which untraced runs launch, holds the study's kernels
// as they are (issue 18: they are the figure to reproduce): its
// preprocessed text, from bfs.cu's first line to the counts and all of
// dp.cu, is testdata/study_untraced.golden token for token (made from
// bfs.cu and dp.cu as they were before the traced build; go test -update
// rewrites it, for a change to the study's kernels that is meant), and
// names no trace code. The traced build gives each study kernel the
// log's two arguments, last, and logs its span: llog_begin first,
// llog_end last (the counts llog_end_synced, after block_add's barrier);
// dp.cu's parents stamp their start only (they are launched open).
func TestStudyBuilds(t *testing.T) {
	if bfsBuilds.Untraced.Source != gpu.PrependLaunchLog(withChunks(bfsSource)) || len(bfsBuilds.Untraced.Options) != 0 ||
		bfsBuilds.Traced.Source != bfsBuilds.Untraced.Source || len(bfsBuilds.Traced.Options) != 1 {
		t.Fatalf("bfs.cu's builds: %d and %d options; want the launch log's header, chunks.cuh and bfs.cu in both, -D%s=1 in the traced one",
			len(bfsBuilds.Untraced.Options), len(bfsBuilds.Traced.Options), studyTraced)
	}
	if dpBuilds.Untraced.Source != dpSource || len(dpBuilds.Untraced.Options) != 1 ||
		dpBuilds.Traced.Source != gpu.PrependLaunchLog(dpSource) || len(dpBuilds.Traced.Options) != 2 {
		t.Fatalf("dp.cu's builds: %d and %d options; want dp.cu alone with dynamic parallelism, and after the launch log's header with -D%s=1 too",
			len(dpBuilds.Untraced.Options), len(dpBuilds.Traced.Options), studyTraced)
	}

	off := fakegpu.Preprocess(t, "bfs.cu", bfsBuilds.Untraced.Source)
	offDP := fakegpu.Preprocess(t, "dp.cu", dpBuilds.Untraced.Source)
	study := studyPart(t, fakegpu.Preprocess(t, "bfs.cu", bfsSource))
	if m := traceWords.FindString(study + offDP); m != "" {
		t.Errorf("the untraced build's study kernels name %q: trace code outside #ifdef %s", m, studyTraced)
	}
	for _, name := range studyKernelNames {
		if k := kernelText(t, off, name); traceWords.MatchString(k) {
			t.Errorf("the untraced build's %s holds trace code:\n%s", name, k)
		}
	}
	cardtest.Golden(t, "study_untraced", tokens(study)+"\n"+tokens(offDP))

	on := fakegpu.Preprocess(t, "bfs.cu", bfsBuilds.Traced.Source, "-D"+studyTraced+"=1")
	onDP := fakegpu.Preprocess(t, "dp.cu", dpBuilds.Traced.Source, "-D"+studyTraced+"=1")
	for _, name := range studyKernelNames {
		k := strings.TrimSpace(tokens(kernelText(t, on, name)))
		end := " llog_end ( ent ) ; }"
		if strings.HasPrefix(name, "bfs_count_") {
			end = " llog_end_synced ( ent ) ; }"
		}
		if !strings.Contains(k, "u64 * ent , u64 * nxt ) { llog_begin ( ent , nxt ) ;") || !strings.HasSuffix(k, end) {
			t.Errorf("the traced build's %s does not take the log's arguments last, begin with llog_begin and end with %q:\n%s", name, end, k)
		}
	}
	// llog_end_synced needs a barrier after the block's last work: the
	// counts' is block_add's, last in count_level.
	if !strings.HasSuffix(strings.TrimSpace(tokens(kernelText(t, on, "count_level"))), "block_add ( c , & ctl [ 2 ] ) ; }") ||
		!strings.HasSuffix(strings.TrimSpace(tokens(kernelText(t, on, "block_add"))), "__syncthreads ( ) ; }") {
		t.Error("count_level no longer ends with block_add, or block_add with a barrier: the counts' llog_end_synced needs one")
	}
	for _, name := range dpKernelNames {
		k := strings.TrimSpace(tokens(kernelText(t, onDP, name)))
		if !strings.Contains(k, "u64 * ent , u64 * nxt ) { llog_begin ( ent , nxt ) ;") || strings.Contains(k, "llog_end") {
			t.Errorf("the traced build's %s must take the log's arguments last and stamp its start only:\n%s", name, k)
		}
	}
}

// studyPart returns bfs.cu's preprocessed text up to the end of the
// counts (the study's kernels and their helpers; what follows, the
// results' and the direction-optimizing kernels, is not the study's).
func studyPart(t *testing.T, pre string) string {
	t.Helper()
	i := strings.Index(pre, "void finish_levels(")
	if i < 0 {
		t.Fatal("bfs.cu has no finish_levels after the preprocessor")
	}
	return pre[:strings.LastIndex(pre[:i], "template")]
}

// kernelText returns the definition of the kernel or function name in
// pre, preprocessed CUDA C: from the line of its declaration to its
// closing brace.
func kernelText(t *testing.T, pre, name string) string {
	t.Helper()
	loc := regexp.MustCompile(`(?m)^[^;{}\n]*\b` + name + `\s*\([^;{]*\{`).FindStringIndex(pre)
	if loc == nil {
		t.Fatalf("no definition of %s after the preprocessor", name)
	}
	depth := 0
	for i := loc[1] - 1; i < len(pre); i++ {
		switch pre[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return pre[loc[0] : i+1]
			}
		}
	}
	t.Fatalf("the definition of %s does not close", name)
	return ""
}

// tokenRE splits C into identifiers and numbers, string literals, and
// single punctuation characters.
var tokenRE = regexp.MustCompile(`[A-Za-z0-9_.]+|"(?:[^"\\]|\\.)*"|\S`)

// tokens returns src's tokens joined by single spaces, a line break after
// each closing brace at depth 0: text compared token for token, whatever
// the layout.
func tokens(src string) string {
	var sb strings.Builder
	depth := 0
	for _, tok := range tokenRE.FindAllString(src, -1) {
		if sb.Len() > 0 && !strings.HasSuffix(sb.String(), "\n") {
			sb.WriteByte(' ')
		}
		sb.WriteString(tok)
		switch tok {
		case "{":
			depth++
		case "}":
			if depth--; depth == 0 {
				sb.WriteByte('\n')
			}
		}
	}
	return sb.String()
}
