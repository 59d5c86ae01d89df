package web

import (
	"regexp"
	"testing"
)

// The play page's CSP (style-src 'self', script-src 'self') refuses what is written inline
// in its HTML: a style attribute or element, a script without src, an on... handler. The
// page has none; its script sets styles through the CSSOM, which the CSP allows.
func TestThePlayPageHasNothingInline(t *testing.T) {
	for what, re := range map[string]*regexp.Regexp{
		"a style attribute": regexp.MustCompile(`(?i)\sstyle\s*=`),
		"a style element":   regexp.MustCompile(`(?i)<style`),
		"an inline script":  regexp.MustCompile(`(?i)<script(\s[^>]*)?>[^<]`),
		"an event handler":  regexp.MustCompile(`(?i)\son[a-z]+\s*=`),
	} {
		if m := re.Find(playPage); m != nil {
			t.Errorf("play.html has %s: %q", what, m)
		}
	}
}
