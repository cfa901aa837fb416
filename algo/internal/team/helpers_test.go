package team

import (
	"runtime"
	"sync"
)

func maxProcs() int { return runtime.GOMAXPROCS(0) }

// spawn is par.Run's way: a goroutine per worker per phase.
func spawn(workers int, work func(int)) {
	var wg sync.WaitGroup
	for id := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); work(id) }()
	}
	wg.Wait()
}
