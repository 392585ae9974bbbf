"""``aidlc-review doctor``: what this installation of the tool finds around it."""
