package docindex

//go:generate go run ./gen -o docindex.json.gz
