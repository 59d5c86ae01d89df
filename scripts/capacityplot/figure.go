package main

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The figure's size: three panels one above the other.
const (
	figWidth  = 7 * vg.Inch
	figHeight = 10 * vg.Inch
)

// writeFigure draws the three panels of the sweeps into path, in the format its
// extension names.
func writeFigure(path string, ss []sweep, limit float64) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	c, err := draw.NewFormattedCanvas(figWidth, figHeight, format)
	if err != nil {
		return fmt.Errorf("figure %s: %w", path, err)
	}
	plots, err := panels(ss, limit)
	if err != nil {
		return err
	}
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
	}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12), PadY: vg.Points(18)}
	for i, cs := range plot.Align(rows, tiles, dc) {
		rows[i][0].Draw(cs[0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("figure %s: %w", path, err)
	}
	return f.Close()
}

// panels makes the three plots: p99 (log scale, with the limit's line), CPU per session
// and RSS per session, each against N with a line a load.
func panels(ss []sweep, limit float64) ([]*plot.Plot, error) {
	if len(ss) == 0 {
		return nil, errors.New("no reports of sessions to draw")
	}
	lat, cpu, rss := plot.New(), plot.New(), plot.New()
	lat.Title.Text = "Keystroke to next frame, p99"
	lat.Y.Label.Text = "p99 (ms, log scale)"
	lat.Y.Scale, lat.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	cpu.Title.Text = "Server CPU per session"
	cpu.Y.Label.Text = "% of one core"
	rss.Title.Text = "Server RSS per session"
	rss.Y.Label.Text = "KB"
	for _, p := range []*plot.Plot{lat, cpu, rss} {
		p.X.Label.Text = "N (sessions open)"
		p.Add(plotter.NewGrid())
	}
	// One legend, in the top panel's upper left, where few loads are slow yet; the
	// other panels draw the loads in the same colours and marks.
	lat.Legend.Top, lat.Legend.Left = true, true
	cpu.Title.Text += " (lines as above)"
	rss.Title.Text += " (lines as above)"
	for i, s := range ss {
		var l, c, r plotter.XYs
		for _, rep := range s.reports {
			x := float64(rep.N)
			if rep.Latency.P99 > 0 {
				l = append(l, plotter.XY{X: x, Y: rep.Latency.P99})
			}
			if v, ok := rep.cpuPerSession(); ok {
				c = append(c, plotter.XY{X: x, Y: v})
			}
			if rep.Server != nil && rep.Established > 0 {
				r = append(r, plotter.XY{X: x, Y: rep.Server.RSSPerSessionKB})
			}
		}
		for _, pp := range []struct {
			p   *plot.Plot
			xys plotter.XYs
		}{{lat, l}, {cpu, c}, {rss, r}} {
			if len(pp.xys) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(pp.xys)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.load, err)
			}
			line.Color, points.Color, points.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
			line.Width = vg.Points(1.5)
			pp.p.Add(line, points)
			if pp.p == lat {
				pp.p.Legend.Add(s.load.String(), line, points)
			}
		}
	}
	// The limit's line, and a y range that shows it.
	limitLine := plotter.NewFunction(func(float64) float64 { return limit })
	limitLine.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	limitLine.Color = color.Gray{Y: 64}
	lat.Add(limitLine)
	lat.Legend.Add(fmt.Sprintf("%g ms", limit), limitLine)
	lat.Y.Min = math.Min(lat.Y.Min, limit/2)
	lat.Y.Max = math.Max(lat.Y.Max*1.5, limit*2)
	xMax := math.Max(math.Max(lat.X.Max, cpu.X.Max), rss.X.Max)
	for _, p := range []*plot.Plot{lat, cpu, rss} {
		p.X.Min, p.X.Max = 0, xMax
	}
	for _, p := range []*plot.Plot{cpu, rss} {
		p.Y.Min = 0
		p.Y.Max *= 1.1
	}
	return []*plot.Plot{lat, cpu, rss}, nil
}

// logTicks marks a log axis at 1, 2 and 5 times each power of ten, with labels, and at
// the other whole multiples without.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for p := math.Pow10(int(math.Floor(math.Log10(lo)))); p <= hi; p *= 10 {
		for m := 1; m < 10; m++ {
			v := p * float64(m)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
