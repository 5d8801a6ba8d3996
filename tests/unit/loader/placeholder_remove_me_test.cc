// Temporary: replaced by loader tests.
