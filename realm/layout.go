package realm

// layout is the realm's key prefix; its methods name each key (the tree is in realm.go).
type layout string

func (p layout) realm(name string) string     { return string(p) + "realm/" + name }
func (p layout) claim(knight string) string   { return string(p) + "claim/" + knight }
func (p layout) release(knight string) string { return string(p) + "release/" + knight }
func (p layout) releases() string             { return string(p) + "release/" }
func (p layout) sheet(knight string) string   { return string(p) + "knight/" + knight }
func (p layout) under(key string) string      { return string(p) + key }

// knightOfRelease is the knight a release key names.
func (p layout) knightOfRelease(key string) string { return key[len(p.releases()):] }
