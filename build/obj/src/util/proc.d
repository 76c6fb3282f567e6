build/obj/src/util/proc.o: src/util/proc.c src/util/proc.h src/util/err.h \
 src/util/shell.h
src/util/proc.h:
src/util/err.h:
src/util/shell.h:
