"""The topic rule editor: a form and a JSON view of the same rule, and a live routing preview."""
