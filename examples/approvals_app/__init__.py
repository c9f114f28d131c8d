"""An example application: agents run in Celery workers, stop before risky tool calls, and a
person approves or denies each call on a web page; the conversation then resumes in whichever
worker picks it up. See README.md."""
