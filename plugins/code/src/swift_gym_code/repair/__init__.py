"""Repository repair tasks: bugs injected into real projects by AST mutation, each kept only
when the project's own tests prove it (some fail with it and pass without, the rest pass both
ways)."""
