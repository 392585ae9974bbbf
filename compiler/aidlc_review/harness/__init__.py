"""Reading and validating a harness: its files, their frontmatter and the definitions they hold."""
