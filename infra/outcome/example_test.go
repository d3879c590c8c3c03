package outcome_test

import (
	"fmt"

	"ghops.dev/infra/outcome"
)

func Example() {
	fmt.Println(outcome.Unknown)
	fmt.Println(outcome.Message)
	// Output:
	// unknown
	// Outcome unknown: the write may have landed
}
