build/obj/src/util/err.o: src/util/err.c src/util/err.h
src/util/err.h:
