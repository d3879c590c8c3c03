package eventstream_test

import (
	"bytes"
	"reflect"
	"testing"

	"ghops.dev/infra/eventstream"
)

func TestData(t *testing.T) {
	tests := []struct {
		name     string
		stream   string
		want     []string
		wantLast string
	}{
		{name: "one event", stream: "event: message\ndata: {\"id\":1}\n\n", want: []string{`{"id":1}`}, wantLast: `{"id":1}`},
		{name: "two events, last wins", stream: "data: {\"a\":1}\n\ndata: {\"b\":2}\n\n", want: []string{`{"a":1}`, `{"b":2}`}, wantLast: `{"b":2}`},
		{name: "multi-line data joined by newline", stream: "data: {\"a\":\ndata: 1}\n\n", want: []string{"{\"a\":\n1}"}, wantLast: "{\"a\":\n1}"},
		{name: "no space after the colon", stream: "data:x\n\n", want: []string{"x"}, wantLast: "x"},
		{name: "only one leading space dropped", stream: "data:  x\n\n", want: []string{" x"}, wantLast: " x"},
		{name: "last event without a blank line", stream: "data: a\n\ndata: b", want: []string{"a", "b"}, wantLast: "b"},
		{name: "CRLF and CR line ends", stream: "data: a\r\n\r\ndata: b\r\r", want: []string{"a", "b"}, wantLast: "b"},
		{name: "comments, ids and events without data", stream: ": ping\nid: 7\nevent: x\n\nretry: 10\n\n", want: nil},
		{name: "empty", stream: "", want: nil},
		{name: "a field named like data is not data", stream: "database: x\n\n", want: nil},
		{name: "empty data counts as an event", stream: "data:\n\ndata: z\n\n", want: []string{"", "z"}, wantLast: "z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range eventstream.Data([]byte(tc.stream)) {
				got = append(got, string(e))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Data = %q, want %q", got, tc.want)
			}
			if last := string(eventstream.Last([]byte(tc.stream))); last != tc.wantLast {
				t.Errorf("Last = %q, want %q", last, tc.wantLast)
			}
		})
	}
}

// FuzzData checks that any body is read without a panic and that no
// event's data holds a line break the stream did not put between two of
// its data lines.
func FuzzData(f *testing.F) {
	for _, seed := range []string{"data: {\"id\":1}\n\n", "data:a\r\ndata:b\r\n\r\n", ": c\n\n", "data", "\r\r\n\n:", "data: x"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		events := eventstream.Data(stream)
		if len(events) > bytes.Count(stream, []byte("data"))+1 {
			t.Fatalf("%d events from %d data fields", len(events), bytes.Count(stream, []byte("data")))
		}
		for _, e := range events {
			if len(e) > len(stream) {
				t.Fatalf("event of %d bytes from a stream of %d", len(e), len(stream))
			}
			if bytes.ContainsRune(e, '\r') {
				t.Fatalf("event %q holds a carriage return", e)
			}
		}
	})
}
