package logtest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
)

func TestErrorLines(t *testing.T) {
	tests := []struct {
		name    string
		written string
		want    []string
	}{
		{name: "empty", written: "", want: nil},
		{name: "structured records only", written: `{"level":"INFO","msg":"rpc"}` + "\n", want: nil},
		{name: "mixed", written: "jsonrpc_error tool=fetch code=-32002\n{\"msg\":\"x\"}\njsonrpc_error tool=search code=-32602\n",
			want: []string{"jsonrpc_error tool=fetch code=-32002", "jsonrpc_error tool=search code=-32602"}},
		{name: "prefix must start the line", written: "x jsonrpc_error tool=fetch\njsonrpc_errorless\n", want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b Buffer
			if _, err := b.Write([]byte(tc.written)); err != nil {
				t.Fatal(err)
			}
			if got := b.ErrorLines(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ErrorLines() = %q, want %q", got, tc.want)
			}
			if b.String() != tc.written {
				t.Errorf("String() = %q", b.String())
			}
		})
	}
}

func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fmt.Fprintf(&b, "jsonrpc_error tool=t%d\n", i)
			_ = b.String()
		}()
	}
	wg.Wait()
	if n := len(b.ErrorLines()); n != 8 {
		t.Errorf("%d lines, want 8", n)
	}
}
