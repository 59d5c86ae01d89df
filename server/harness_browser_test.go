package server

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browserPage drives the play page in headless Chromium for a test.
type browserPage struct {
	t   *testing.T
	ctx context.Context
}

// eval is the value of a script's expression on the page.
func eval[T any](p browserPage, js string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// waitText waits until the page's text at js (an expression) holds every want.
func (p browserPage) waitText(js string, want ...string) string {
	p.t.Helper()
	var s string
	if !poll(20*time.Second, pollEvery, func() bool { s = eval[string](p, js); return containsAll(s, want) }) {
		p.t.Fatalf("the page never showed %q; it shows:\n%s", want, s)
	}
	return s
}

// screenJS is the play page's grid as text.
const screenJS = `document.getElementById("screen").innerText`

// screenText is the play page's grid as text.
func (p browserPage) screenText() string { return eval[string](p, screenJS) }

// waitScreen waits until the play page's grid holds every want.
func (p browserPage) waitScreen(want ...string) string {
	p.t.Helper()
	return p.waitText(screenJS, want...)
}

// press types each of keys into the page, as a keyboard would.
func (p browserPage) press(keys ...string) {
	p.t.Helper()
	for _, k := range keys {
		if err := chromedp.Do(p.ctx, chromedp.KeyEvent(k)); err != nil {
			p.t.Fatalf("press %q: %v", k, err)
		}
	}
}

// open opens url in the page.
func (p browserPage) open(url string) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate(url)); err != nil {
		p.t.Fatalf("open %s: %v", url, err)
	}
}

// text is the text of the element sel, "" when there is none.
func (p browserPage) text(sel string) string {
	p.t.Helper()
	return eval[string](p, `(document.querySelector("`+sel+`") || {}).innerText || ""`)
}

// waitFor waits until the element sel shows every one of want, and returns its text.
func (p browserPage) waitFor(sel string, want ...string) string {
	p.t.Helper()
	var s string
	if !poll(20*time.Second, pollEvery, func() bool { s = p.text(sel); return containsAll(s, want) }) {
		p.t.Fatalf("%s never showed %q; it shows:\n%s", sel, want, s)
	}
	return s
}
