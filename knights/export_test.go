package knights

// AddrsCounted is how many addresses' new knights a are counting, for the external tests.
func (a *Arrivals) AddrsCounted() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.made)
}
