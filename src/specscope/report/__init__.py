"""specscope.report"""
