"""specscope.gate"""
