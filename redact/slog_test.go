package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

type stringer struct{}

func (stringer) String() string { return "s " + classic }

type valuer struct{}

func (valuer) LogValue() slog.Value { return slog.StringValue("v " + jwt) }

// TestHandler logs a secret through every kind of attribute and checks none
// reaches the output, while the clean values do.
func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewJSONHandler(&buf, nil))).With("preset", "Bearer abcdefghijkl", "clean", "kept")
	log.WithGroup("g").Info("panic: "+classic,
		"str", "x_"+classic,
		"err", errors.New("dial: password=hunter2"),
		"stringer", stringer{},
		"bytes", []byte(apiKey),
		"raw", json.RawMessage(`{"token":"abc"}`),
		"map", map[string]any{"id": jwt},
		"valuer", valuer{},
		slog.Group("grp", "inner", "ghops-demo-token"),
		"n", 42,
		"plain", "merge_pull_request",
	)
	out := buf.String()
	for _, secret := range []string{classic, "abcdefghijkl", "hunter2", apiKey, `"abc"`, jwt, "ghops-demo-token"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q leaked: %s", secret, out)
		}
	}
	for _, kept := range []string{`"msg":"panic: [REDACTED]"`, `"clean":"kept"`, `"n":42`, `"plain":"merge_pull_request"`, `"str":"x_[REDACTED]"`, `"token":"[REDACTED]"`} {
		if !strings.Contains(out, kept) {
			t.Errorf("missing %s in %s", kept, out)
		}
	}
	if !log.Enabled(t.Context(), slog.LevelInfo) || log.Enabled(t.Context(), slog.LevelDebug) {
		t.Error("Enabled not delegated")
	}
}
