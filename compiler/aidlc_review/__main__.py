from aidlc_review.cli.main import entry

entry()
