//go:build cgo

package gpu

import "testing"

func init() {
	addScenario("graph_roots", nil, func(t *testing.T) { checkGraphRoots(t, fakeDevice(t)) })
}
