"""The first run: the welcome page shown while there is no library, and the sample library's
tips (its two questions, the graph) beside the library they belong to."""
