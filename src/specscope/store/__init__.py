"""specscope.store"""
