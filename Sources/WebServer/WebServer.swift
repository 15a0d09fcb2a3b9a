// Placeholder: the WebServer module is built in its own issue.
