"""Callbacks the CLI asks for: ``can_use_tool`` (``permissions``, ``permission_types``) and
hooks (``hooks``, ``hook_types``, ``hook_inputs`` with ``hook_input_base`` and
``hook_environment_inputs``, ``hook_outputs``): wire request ↔ callback
arguments and result, sans I/O. The engine runs them on its callback pool.
"""
