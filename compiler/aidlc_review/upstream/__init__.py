"""Upstream's engine as the plugin meets it: its TypeScript tools (run with bun) and the
intent state files they keep. Below the review and the installer: both use it."""
