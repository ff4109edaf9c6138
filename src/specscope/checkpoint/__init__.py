"""specscope.checkpoint"""
