package session

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/graphnb/graphnb/cancel"
)

// Sorting with a cell's comparison. sort.Slice and its kin are compiled
// code calling back into the cell: once an interrupt has stopped the
// cell's program every call of the comparison returns at once, but the
// sort itself goes on — seconds for millions of elements — shuffling the
// slice while the next cell waits for it (drain). The session's versions
// poll the cancellation request at every comparison and abandon the sort
// with a panic, which ends the interrupted program; the slice is left
// partly sorted, as an interrupted sort leaves it.

// stopSort is the panic that abandons an interrupted sort.
var stopSort = fmt.Errorf("sort: %w", cancel.ErrInterrupted)

func stoppableLess(less func(i, j int) bool) func(i, j int) bool {
	return func(i, j int) bool {
		if cancel.Requested() {
			panic(stopSort)
		}
		return less(i, j)
	}
}

// stoppableData is a sort.Interface whose Less polls the request.
type stoppableData struct{ sort.Interface }

func (d stoppableData) Less(i, j int) bool {
	if cancel.Requested() {
		panic(stopSort)
	}
	return d.Interface.Less(i, j)
}

func sortSlice(x any, less func(i, j int) bool) { sort.Slice(x, stoppableLess(less)) }

func sortSliceStable(x any, less func(i, j int) bool) {
	sort.SliceStable(x, stoppableLess(less))
}

func sortSort(data sort.Interface) { sort.Sort(stoppableData{data}) }

func sortStable(data sort.Interface) { sort.Stable(stoppableData{data}) }

// sortSymbols replace package sort's functions for cells.
var sortSymbols = map[string]reflect.Value{
	"Slice":       reflect.ValueOf(sortSlice),
	"SliceStable": reflect.ValueOf(sortSliceStable),
	"Sort":        reflect.ValueOf(sortSort),
	"Stable":      reflect.ValueOf(sortStable),
}
