package command

import "testing"

// motd is the message of the day as the server has it now, for anyone.
func TestMOTDIsTheMessageOfTheDay(t *testing.T) {
	d := newPlayerDesk(t, "")
	d.wantRun(nil, "motd", "No message of the day.\n", "", 0)
	d.wantRun(nil, "motd --json", `{"motd":""}`+"\n", "", 0)
	d.motd = "The king's tournament is on Sunday."
	d.wantRun(nil, "motd", "The king's tournament is on Sunday.\n", "", 0)
	d.wantRun(newKey(t), "motd --json", `{"motd":"The king's tournament is on Sunday."}`+"\n", "", 0)
	d.wantRun(nil, "motd set Hello", "", "orthanc: unexpected \"set\"; usage: motd [--json]\n", 1)
}
