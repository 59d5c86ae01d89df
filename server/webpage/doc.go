// Package webpage is the server's web page, gathered and served: its listener's caps
// (Listen), the status drawn from the world, the knights' records and the replays
// (Page.Status), and the replays' casts (Page.Cast). Package web draws the page from
// plain values; this package gathers them, from small interfaces rather than the
// server, so the page never reaches into the world or the store itself and nothing on it
// changes game state.
package webpage
