package rpcerror

import "testing"

func TestValidationMessage(t *testing.T) {
	tests := []struct {
		name string
		vs   []Violation
		want string
	}{
		{"one", []Violation{{Message: "must have required property 'query'"}}, "Validation errors: must have required property 'query'"},
		{"two", []Violation{{Message: "a"}, {Message: "b"}}, "Validation errors: a, b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ValidationMessage(tc.vs); got != tc.want {
				t.Errorf("ValidationMessage = %q, want %q", got, tc.want)
			}
		})
	}
}
