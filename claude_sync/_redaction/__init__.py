"""The bottom floor: secrets out of everything claude_sync shows, logs or writes — the one
redactor and the logger factory every module logs through (``redactor``), the secret values
the process knows (``secrets``) and the pattern pass that finds secrets by shape
(``patterns``). Pure, and below the wire: it imports no other claude_sync module, so every
folder may use it.
"""
