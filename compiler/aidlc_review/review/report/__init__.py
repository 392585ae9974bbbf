"""What people read: code-review.md, SARIF and annotations, from the findings document."""
