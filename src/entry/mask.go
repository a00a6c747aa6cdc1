package main

import (
	"bytes"
	"sort"
)

// Secret masking, the same as the engine's (src/core/vars/mask.ts; both run the cases of
// test/fixtures/masking-cases.json): every occurrence of every secret is located in the original text
// and overlapping occurrences are merged into one masked range. Replacing secrets one after another
// would leave part of one visible when two overlap (abcdef and cdefgh in abcdefgh) or when one
// replacement makes another's text. Adjacent occurrences stay separate masks; empty values are ignored.

var maskText = []byte("*******")

type span struct{ start, end int }

func uniqueMasks(masks []string) [][]byte {
	seen := map[string]bool{}
	var out [][]byte
	for _, m := range masks {
		if m != "" && !seen[m] {
			seen[m] = true
			out = append(out, []byte(m))
		}
	}
	return out
}

// findSpans: occurrences (overlapping ones included) of all secrets, merged where they overlap, by start.
func findSpans(text []byte, secrets [][]byte) []span {
	var found []span
	for _, s := range secrets {
		for from := 0; from <= len(text); {
			i := bytes.Index(text[from:], s)
			if i < 0 {
				break
			}
			found = append(found, span{from + i, from + i + len(s)})
			from += i + 1
		}
	}
	sort.Slice(found, func(a, b int) bool {
		return found[a].start < found[b].start || (found[a].start == found[b].start && found[a].end > found[b].end)
	})
	var merged []span
	for _, r := range found {
		if n := len(merged); n > 0 && r.start < merged[n-1].end {
			if r.end > merged[n-1].end {
				merged[n-1].end = r.end
			}
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// render writes text[from:to] with the spans masked. A span that starts before from continues a mask
// already written, so its remaining bytes are dropped rather than masked a second time.
func render(text []byte, from, to int, spans []span) []byte {
	out := make([]byte, 0, to-from)
	pos := from
	for _, r := range spans {
		if r.end <= pos || r.start >= to {
			continue
		}
		if r.start > pos {
			out = append(out, text[pos:r.start]...)
		}
		if r.start >= from {
			out = append(out, maskText...)
		}
		pos = min(r.end, to)
	}
	return append(out, text[pos:to]...)
}

// maskAll replaces every occurrence of every non-empty secret with the mask.
func maskAll(text []byte, masks []string) []byte {
	list := uniqueMasks(masks)
	if len(list) == 0 || len(text) == 0 {
		return text
	}
	return render(text, 0, len(text), findSpans(text, list))
}

// A masker masks a stream given in chunks: it holds back at most (longest secret - 1) bytes, so a
// secret split across chunks is still masked, and remembers as much of what it wrote as context, so a
// mask that had to extend past the hold-back line is continued rather than partly revealed.
type masker struct {
	list    [][]byte
	hold    int
	context []byte
	pending []byte
}

func newMasker(masks []string) *masker {
	m := &masker{list: uniqueMasks(masks)}
	for _, s := range m.list {
		m.hold = max(m.hold, len(s)-1)
	}
	return m
}

func (m *masker) emit(text []byte, cut int, spans []span) []byte {
	out := render(text, len(m.context), cut, spans)
	m.pending = append([]byte(nil), text[cut:]...)
	m.context = append([]byte(nil), text[max(0, cut-m.hold):cut]...)
	return out
}

// push returns the masked text that is safe to write now (the tail may be held back).
func (m *masker) push(chunk []byte) []byte {
	if len(m.list) == 0 {
		return chunk
	}
	text := append(append(append([]byte(nil), m.context...), m.pending...), chunk...)
	spans := findSpans(text, m.list)
	cut := max(len(m.context), len(text)-m.hold)
	for _, r := range spans {
		if r.start < cut && r.end > cut {
			cut = r.end
			break
		}
	}
	return m.emit(text, cut, spans)
}

// flush returns the held-back rest, masked; the masker can be used again afterwards.
func (m *masker) flush() []byte {
	text := append(append([]byte(nil), m.context...), m.pending...)
	out := m.emit(text, len(text), findSpans(text, m.list))
	m.context = nil
	return out
}
