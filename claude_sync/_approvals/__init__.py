"""Approvals that wait for a person: stop before a risky tool call, decide later, resume anywhere.

``policy`` says which calls need a person (rules in the ``allowed_tools`` syntax and/or a
callable; pure); ``records`` holds the JSON-serialisable ``PendingApproval``, the
``ApprovalDecision`` and the approval errors (pure); ``gate`` answers the CLI's ``PreToolUse``
hook and ``can_use_tool`` requests for one run (defer, or apply the decision to the one call it
names; pure); ``claims`` checks a pending approval against the session's transcript and
records the one claim that lets a single resume run the call (store or local file);
``flow`` drives the CLI: ``run_with_approvals`` and ``resume_approval`` (I/O).
"""
