"""Git facts and the code acts (merge, revert, discard) that become evidence."""
