package cachestore

import (
	"encoding/binary"
	"net/http"
)

// magic starts every encoded entry; a new layout takes a new magic, so that
// replicas of two versions treat each other's entries as misses.
const magic = "ghc1"

// maxFields bounds the header fields a decoded entry may claim, so that a
// damaged entry cannot make Decode allocate without end.
const maxFields = 256

// Encode writes e in the layout Decode reads: magic, status, flags, ETag,
// header fields (name, value count, values) and body, strings length-prefixed
// with uvarints.
func Encode(e *Entry) []byte {
	b := make([]byte, 0, len(e.Body)+256)
	b = append(b, magic...)
	b = binary.AppendUvarint(b, uint64(e.Status))
	var flags uint64
	if e.Immutable {
		flags |= 1
	}
	b = binary.AppendUvarint(b, flags)
	b = appendString(b, e.ETag)
	b = binary.AppendUvarint(b, uint64(len(e.Header)))
	for k, vs := range e.Header {
		b = appendString(b, k)
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = appendString(b, v)
		}
	}
	return appendString(b, string(e.Body))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Decode reads an entry written by Encode; anything else is an error.
func Decode(b []byte) (*Entry, error) {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return nil, errCodec
	}
	d := decoder{b: b[len(magic):]}
	e := &Entry{Status: int(d.uvarint()), Header: http.Header{}}
	e.Immutable = d.uvarint()&1 == 1
	e.ETag = d.string()
	n := d.uvarint()
	if n > maxFields {
		return nil, errCodec
	}
	for range n {
		k := d.string()
		m := d.uvarint()
		if m > maxFields {
			return nil, errCodec
		}
		for range m {
			e.Header[k] = append(e.Header[k], d.string())
		}
	}
	e.Body = []byte(d.string())
	if d.bad || len(d.b) != 0 || e.Status < 100 || e.Status > 599 {
		return nil, errCodec
	}
	return e, nil
}

type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	if d.bad {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
