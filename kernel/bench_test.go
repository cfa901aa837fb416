package kernel

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkExecuteRoundTrip measures a trivial execute_request ("1+1" on a
// fake engine answering "2") from sending the request until both its
// execute_reply and its idle status have arrived, over loopback ZeroMQ
// with zmq4 clients in the same process. It reports the median and 90th
// percentile in microseconds. "capture" runs with fd capture on (one Sync
// per cell), as the real kernel does.
func BenchmarkExecuteRoundTrip(b *testing.B) {
	for _, tc := range []struct {
		name    string
		capture bool
	}{{"nocapture", false}, {"capture", true}} {
		b.Run(tc.name, func(b *testing.B) {
			// Serve is started and stopped inside the function (not in a
			// cleanup) so that fd capture never spans the framework's output.
			k := startKernel(b, func(o *Options) { o.NoCapture = !tc.capture; o.Logger = discardLogger() })
			c := dialClient(b, k.ci)
			req := map[string]any{"code": "1+1", "silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true}
			times := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				h := c.send("shell", "execute_request", req)
				c.replyTo(c.shellCh, h.MsgID)
				c.iopubFor(h.MsgID)
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds()), "p50_µs")
			b.ReportMetric(float64(times[len(times)*9/10].Microseconds()), "p90_µs")
			c.close()
			k.stop(b)
		})
	}
}
