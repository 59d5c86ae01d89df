package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Issue 44: screen-reader mode told a locked door's way as "Shift+arrow (or d, then a
// direction)" and a party's answer as "/accept Lis". Every text the world writes to a
// knight's log (each string of the world package's code, its format verbs filled in),
// read as screen-reader mode tells it (plainMessage), and every line of screen-reader
// mode's own (the strings of its files): none names a key or a slash command, and every
// word it says to type is a word screen-reader mode takes. Enter, the arrows and shift
// with an arrow are keys it takes.
func TestPlainLinesNameOnlyPlainWords(t *testing.T) {
	world := readStrings(t, filepath.Join("..", "world", "*.go"))
	var own []string
	for _, f := range []string{"plain.go", "plainhelp.go", "sightings.go", "words.go", "wordacts.go", "describe.go", "describemap.go", "surface.go"} {
		for _, s := range readStrings(t, f) {
			// A sentence: not a key's name ("shift+up"), a chat command built from a word
			// ("/say "), or a world phrase that plainKeys says otherwise.
			if strings.Contains(s, " ") && !strings.HasPrefix(s, "/") && plainMessage(s) == s {
				own = append(own, s)
			}
		}
	}
	if len(world) < 500 || len(own) < 100 {
		t.Fatalf("only %d strings of the world and %d of screen-reader mode were read", len(world), len(own))
	}
	for _, s := range world {
		checkPlainLine(t, s, plainMessage)
	}
	for _, s := range own {
		checkPlainLine(t, s, func(s string) string { return s })
	}
}

// checkPlainLine checks one string as screen-reader mode says it (tell).
func checkPlainLine(t *testing.T, lit string, tell func(string) string) {
	t.Helper()
	line := plainVerb.ReplaceAllStringFunc(lit, func(v string) string {
		switch v[len(v)-1] {
		case 'd':
			return "3"
		case 's', 'v', 'q':
			return "east" // a direction, a name, a channel: any word
		}
		return "x"
	})
	said := tell(line)
	heard := plainKeysTaken.ReplaceAllString(said, "")
	for _, re := range plainKeyForms {
		if re.MatchString(heard) {
			t.Errorf("screen-reader mode says a key or a slash command (%s):\n  from: %q\n  said: %q", re, lit, said)
		}
	}
	for _, m := range plainTyped.FindAllStringSubmatchIndex(said, -1) {
		w := strings.ToLower(said[m[2]:m[3]])
		if strings.HasSuffix(strings.ToLower(said[:m[0]]), "you ") { // "the next line you type"
			continue
		}
		if !plainAccepted()[w] {
			t.Errorf("screen-reader mode says to type %q, which it does not take:\n  %q", w, said)
		}
	}
}

var (
	plainKeyForms = []*regexp.Regexp{
		regexp.MustCompile(`(?i)shift\+`),
		regexp.MustCompile(`(?i)\bpress(es)?\b`),
		regexp.MustCompile(`(^|[\s(])/[a-zA-Z#]`),
		regexp.MustCompile(`(?i)\bthen a direction\b`),
		regexp.MustCompile(`\(\s*[a-zA-Z<>?$] to `),
		regexp.MustCompile(`(^|[\s(!;,])[a-zA-Z<>$] (fights|runs|buys|sells|reads|opens|leaves)\b`),
		regexp.MustCompile(`(?i)\bctrl\b|\besc\b`),
	}
	// plainKeysTaken are the keys screen-reader mode takes, and the drawn screen's way
	// back to it, which is said before it is left.
	plainKeysTaken = regexp.MustCompile(`(?i)\bpress(es)? (Enter|shift)|press o for the options and then a`)
	plainTyped     = regexp.MustCompile(`(?i)\btype ([a-z]+)`)
	plainVerb      = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)
)

// plainAccepted are the words screen-reader mode takes first on a line, and the words a
// line says to type that are not commands ("type a name").
func plainAccepted() map[string]bool {
	accepted := map[string]bool{"a": true, "the": true}
	for _, r := range plainWords {
		for _, w := range r.words {
			accepted[w] = true
		}
	}
	return accepted
}

// readStrings are the string literals of the code in the files the pattern names (not
// their tests, nor regular expressions).
func readStrings(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "MustCompile" {
					return false // a pattern, said to no one
				}
			}
			if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING {
				if s, err := strconv.Unquote(bl.Value); err == nil && !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
			return true
		})
	}
	return out
}
