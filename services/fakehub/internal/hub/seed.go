package hub

import (
	"time"
)

// seedEpoch is the fixed clock the demo dataset is written with, so its commit ids never change.
var SeedEpoch = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
