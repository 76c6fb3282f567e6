build/obj/src/util/fsutil.o: src/util/fsutil.c src/util/fsutil.h \
 src/util/err.h
src/util/fsutil.h:
src/util/err.h:
