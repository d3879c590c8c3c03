package redact

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
)

// Handler wraps h so that every record it handles is redacted: the message,
// and every attribute value (strings; errors, fmt.Stringers and []byte by
// their text; JSON-shaped values through Value; groups and LogValuers
// resolved first). Installed once where a binary builds its logger, it
// covers log lines whose authors forgot to redact.
func Handler(h slog.Handler) slog.Handler { return &handler{h: h} }

type handler struct{ h slog.Handler }

func (r *handler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r *handler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(attr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r *handler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = attr(a)
	}
	return &handler{h: r.h.WithAttrs(red)}
}

func (r *handler) WithGroup(name string) slog.Handler { return &handler{h: r.h.WithGroup(name)} }

// attr redacts one attribute's value.
func attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s := v.String(); String(s) != s {
			return slog.String(a.Key, String(s))
		}
		return slog.Attr{Key: a.Key, Value: v}
	case slog.KindGroup:
		group := v.Group()
		red := make([]slog.Attr, len(group))
		for i, g := range group {
			red[i] = attr(g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(red...)}
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, String(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, String(x.String()))
		case []byte:
			return slog.String(a.Key, String(string(x)))
		case json.RawMessage:
			return slog.Any(a.Key, json.RawMessage(JSON(x)))
		default:
			return slog.Any(a.Key, Value(x))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
