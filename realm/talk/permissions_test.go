package talk

import (
	"os"
	"strings"
	"testing"
)

// The nats-server users block OPERATIONS shows is NATSUser's, which the tests give a
// real nats-server (TestTalkThroughAnExternalServer): an operator who copies it gets the
// permissions the realms are tested with.
func TestOperationsShowsTheRealmsUsers(t *testing.T) {
	doc, err := os.ReadFile("../../docs/OPERATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, realm := range []string{"europe", "sydney"} {
		if want := NATSUser("orthanc", realm, "CONTENTS OF "+realm+".secret"); !strings.Contains(string(doc), want) {
			t.Errorf("OPERATIONS lacks %s's user as NATSUser writes it:\n%s", realm, want)
		}
	}
}
