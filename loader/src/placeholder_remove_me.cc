// Temporary: replaced by the manifest loader.
