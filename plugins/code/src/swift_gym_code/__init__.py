"""swift-gym's code envs: `code.humaneval` (write a function, hidden tests decide) and
`code.repair` (a bug in a real project, repaired with shell and file tools). Every line of
code a model writes runs in swift-gym's sandbox."""
