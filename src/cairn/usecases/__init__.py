"""The use cases: remember, recall, lessons on a call, tidy, transfer, install..."""
